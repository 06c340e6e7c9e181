import { useRef, type ReactNode } from 'react';

export interface FilePickerButtonProps {
  /** the button's text */
  children: ReactNode;
  /** the file input's `accept` attribute */
  accept: string;
  /** the first file chosen (undefined when the selection is empty) */
  onFile: (file: File | undefined) => void;
  className?: string;
  testId?: string;
}

/**
 * A button opening a hidden single-file input. The input is cleared after each choice, so the same
 * file can be chosen again.
 */
export default function FilePickerButton({ children, accept, onFile, className, testId }: FilePickerButtonProps) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className={className ?? 'btn btn-secondary'} onClick={() => input.current?.click()}>
        {children}
      </button>
      <input
        ref={input}
        type="file"
        accept={accept}
        hidden
        data-testid={testId}
        onChange={(e) => {
          onFile(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
    </>
  );
}
