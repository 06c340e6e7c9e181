"""Real-photo annotation for the bruise model: specs (JSON) -> masks -> COCO. See ../ANNOTATION.md."""
