/**
 * The careful HTTP client: one attempt never throws (no answer is status 0), and a write is asked
 * again with the same idempotency key after 5xx, 429, a 202 of a write still running or a dropped
 * connection, after Retry-After (at most 5 s), until a definite answer or the operation's time is up.
 */
import { answerText, type Answer } from './answers';

export interface Attempt {
  /** Milliseconds since the run started. */
  at: number;
  request: string;
  answer: string;
  /** Whether this request repeats one that got no definite answer. */
  again?: boolean;
}

export class NoDefiniteAnswer extends Error {}

export interface ClientOptions {
  url: () => string;
  apiKey: string;
  /** How long one operation may keep asking before the run reports it (a liveness failure). */
  patienceMs: number;
  startedAt: number;
  /** Every answer's status is counted here (the run's summary). */
  count: (status: number) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Client {
  constructor(private readonly options: ClientOptions) {}

  /** One request. */
  async call(method: string, route: string, body: unknown, headers: Record<string, string> = {}, apiKey = this.options.apiKey): Promise<Answer> {
    let answer: Answer;
    try {
      const response = await fetch(`${this.options.url()}${route}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      const retryAfter = Number(response.headers.get('retry-after'));
      answer = { status: response.status, body: parsed, ...(retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}) };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      answer = { status: 0, body: undefined, error: cause?.code ?? (error as Error).name };
    }
    this.options.count(answer.status);
    return answer;
  }

  /**
   * Asks until `definite` says the answer is one; each attempt is reported to `attempt`. The same
   * request each time (same body, same key), so the service joins or answers the first.
   */
  async until(
    method: string,
    route: string,
    body: unknown,
    definite: (answer: Answer) => boolean,
    attempt: (a: Attempt) => void,
    options: { key?: string; apiKey?: string } = {},
  ): Promise<Answer> {
    const giveUpAt = Date.now() + this.options.patienceMs;
    for (let tries = 0; ; tries++) {
      const at = Date.now() - this.options.startedAt;
      const answer = await this.call(method, route, body, options.key ? { 'Idempotency-Key': options.key } : {}, options.apiKey);
      attempt({ at, request: `${method} ${route}`, answer: answerText(answer), ...(tries > 0 ? { again: true } : {}) });
      if (process.env.CHAOS_DEBUG)
        console.log(
          `[debug +${(at / 1000).toFixed(1)}s] ${method} ${route}${options.key ? ` ${options.key}` : ''} → ${answerText(answer)}${answer.status >= 400 || answer.status === 0 ? ` ${JSON.stringify(answer.body ?? answer.error).slice(0, 300)}` : ''}`,
        );
      if (definite(answer)) return answer;
      if (Date.now() > giveUpAt)
        throw new NoDefiniteAnswer(
          `no definite answer to ${method} ${route} in ${this.options.patienceMs / 1000} s (${tries + 1} attempts, last ${answerText(answer)})`,
        );
      const wait = answer.retryAfterSeconds ? Math.min(answer.retryAfterSeconds, 5) * 1000 : Math.min(250 * 2 ** Math.min(tries, 3), 2000);
      await sleep(wait);
    }
  }

  /** A read: asked again until it gets an answer that is not a fault (2xx, 4xx, or a 500 the caller reports). */
  read(route: string, body: unknown, attempt: (a: Attempt) => void = () => {}, apiKey?: string): Promise<Answer> {
    return this.until('POST', route, body, (a) => a.status === 500 || (a.status >= 200 && a.status < 500 && a.status !== 429), attempt, { apiKey });
  }
}
