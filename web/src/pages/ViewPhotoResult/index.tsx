export default function ViewPhotoResult() {
  return <main className="page">ViewPhotoResult</main>;
}
