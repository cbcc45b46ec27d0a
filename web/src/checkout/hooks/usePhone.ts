import { useEffect, useState } from 'preact/hooks';

/**
 * A phone, as far as the page can tell: a narrow screen or a touch pointer. There a QR code is useless (the camera
 * is the screen showing it), so the page offers links that open the wallet app instead (decisions.md §26.9).
 */
const PHONE = '(max-width: 32rem), (pointer: coarse)';

export function usePhone(): boolean {
  const [phone, setPhone] = useState(() => matchMedia(PHONE).matches);
  useEffect(() => {
    const query = matchMedia(PHONE);
    const changed = () => setPhone(query.matches);
    query.addEventListener('change', changed);
    changed();
    return () => query.removeEventListener('change', changed);
  }, []);
  return phone;
}
