// Reloads a page's data every `ms` while it is shown, keeping the last error to show.
import { useCallback, useEffect, useState } from 'preact/hooks';

export function usePoll(load, ms) {
  const [data, setData] = useState(null);
  const [error, setError] = useState('');
  const reload = useCallback(() => load().then((d) => (setData(d), setError('')), (e) => setError(e.message)), [load]);
  useEffect(() => {
    reload();
    const timer = setInterval(reload, ms);
    return () => clearInterval(timer);
  }, [reload, ms]);
  return { data, error, reload };
}
