import { useEffect, useState } from 'preact/hooks';

/**
 * Whether the last request reached the server, joined with the browser's own `online` events (which say at once
 * when the device drops off the network, but not when a server is unreachable behind a working Wi-Fi).
 */
export function useOnline(): [boolean, (reached: boolean) => void] {
  const [online, setOnline] = useState(() => navigator.onLine);
  useEffect(() => {
    const up = () => setOnline(true);
    const down = () => setOnline(false);
    window.addEventListener('online', up);
    window.addEventListener('offline', down);
    return () => {
      window.removeEventListener('online', up);
      window.removeEventListener('offline', down);
    };
  }, []);
  return [online, setOnline];
}
