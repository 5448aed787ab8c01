// One POST through undici's handler API, as the webhook worker makes its attempts (no stream or
// AbortSignal per request, a timer of its own): shared by bench/http-floor.ts and bench/http-paced.ts.
import type { Agent } from 'undici';

/** POSTs `body` to `origin`/hook; resolves with the response's status once its body is read. */
export function undiciPost(dispatcher: Agent, origin: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let abort: (() => void) | undefined;
    let status = 0;
    const timer = setTimeout(() => abort?.(), 10_000);
    dispatcher.dispatch({ origin, path: '/hook', method: 'POST', headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 }, {
      onConnect: (a: () => void) => (abort = a),
      onHeaders: (s: number) => {
        status = s;
        return true;
      },
      onData: () => true,
      onComplete: () => {
        clearTimeout(timer);
        resolve(status);
      },
      onError: (e: Error) => {
        clearTimeout(timer);
        reject(e);
      },
    });
  });
}
