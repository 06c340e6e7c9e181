import { useId, useState, type InputHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';

interface PasswordFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'onChange'> {
  label: string;
  value: string;
  onChange: (value: string) => void;
}

/** A labelled password input with its own show/hide toggle. */
export default function PasswordField({ label, value, onChange, id, ...rest }: PasswordFieldProps) {
  const { t } = useTranslation();
  const autoId = useId();
  const inputId = id ?? autoId;
  const [visible, setVisible] = useState(false);
  return (
    <div className="field">
      <label htmlFor={inputId}>{t(label)}</label>
      <div className="password-wrap">
        <input
          {...rest}
          id={inputId}
          type={visible ? 'text' : 'password'}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
        <button
          type="button"
          className="password-toggle"
          aria-label={t(visible ? 'Hide {{label}}' : 'Show {{label}}', { label: t(label).toLowerCase() })}
          aria-pressed={visible}
          onClick={() => setVisible((v) => !v)}
        >
          {t(visible ? 'Hide' : 'Show')}
        </button>
      </div>
    </div>
  );
}
