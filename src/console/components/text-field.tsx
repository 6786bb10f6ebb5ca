/** A labelled text input: every field of the console has a visible label tied to it. */
export function TextField({
  id,
  label,
  value,
  onChange,
  type = 'text',
  required,
  inputMode,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'search' | 'datetime-local';
  required?: boolean;
  inputMode?: 'text' | 'email';
}) {
  const common = {
    id,
    autocomplete: 'off',
    required,
    value,
    onInput: (event: Event) => onChange((event.target as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {/* One element per type: the DOM typings tell the input types apart. */}
      {type === 'datetime-local' ? (
        <input type="datetime-local" {...common} />
      ) : type === 'search' ? (
        <input type="search" {...common} />
      ) : (
        <input type="text" inputMode={inputMode} {...common} />
      )}
    </div>
  );
}
