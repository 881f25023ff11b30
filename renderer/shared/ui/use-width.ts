// The width of an element, kept current by a ResizeObserver: charts size their tick budget from it
// (once per resize, not per redraw). A callback ref, so an element mounted later is observed too.
import { useCallback, useEffect, useRef, useState } from 'react';

export function useWidth<T extends HTMLElement>(fallback: number): [(el: T | null) => void, number] {
  const [width, setWidth] = useState(fallback);
  const observer = useRef<ResizeObserver | null>(null);
  const ref = useCallback((el: T | null) => {
    observer.current?.disconnect();
    observer.current = null;
    if (!el) return;
    const measured = el.getBoundingClientRect().width;
    if (measured > 0) setWidth(measured);
    observer.current = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w) setWidth((old) => (Math.abs(old - w) >= 1 ? w : old));
    });
    observer.current.observe(el);
  }, []);
  useEffect(() => () => observer.current?.disconnect(), []);
  return [ref, width];
}
