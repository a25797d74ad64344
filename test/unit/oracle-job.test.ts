import { formatDecimal } from '../../src/domain/exact-decimal';
import { feedHash, hostAllowed, parseJobDefinition, runJobDefinition, JobFailure, type HttpGet } from '../../src/domain/oracle-job';
import { refusal } from '../support/expectations';

const FIELD = 'itemData.providerDetails.jobDefinition';
const HOSTS = ['prices.example', '127.0.0.1:8123'];

/** A fake source: answers the body registered for the URL, counts the calls. */
function sources(bodies: Record<string, string>): HttpGet & { calls: string[] } {
  const calls: string[] = [];
  const get = (async (url: string) => {
    calls.push(url);
    if (!(url in bodies)) throw new JobFailure(`GET ${url}: 503`);
    return bodies[url];
  }) as HttpGet & { calls: string[] };
  get.calls = calls;
  return get;
}

async function run(definition: unknown, http: HttpGet = sources({})): Promise<string> {
  return formatDecimal(await runJobDefinition(parseJobDefinition(JSON.stringify(definition), HOSTS, FIELD), http));
}
/** Like run, but the definition's JSON text is given as is (numbers keep every digit). */
async function runText(text: string, http: HttpGet = sources({})): Promise<string> {
  return formatDecimal(await runJobDefinition(parseJobDefinition(text, HOSTS, FIELD), http));
}

describe('oracle job tasks, one by one (exact decimals, never a float)', () => {
  const price = 'https://prices.example/sol';

  it('httpTask + jsonParseTask read a number from the response with every digit', async () => {
    const http = sources({ [price]: '{"data":{"prices":[{"usd":123456789012345678.000000000001}]}}' });
    expect(await run({ tasks: [{ httpTask: { url: price } }, { jsonParseTask: { path: '$.data.prices[0].usd' } }] }, http)).toBe(
      '123456789012345678.000000000001',
    );
    expect(http.calls).toEqual([price]);
  });

  it('jsonParseTask reads a number sent as a string, and bracket keys', async () => {
    const http = sources({ [price]: '{"the price":"42.50"}' });
    expect(await run({ tasks: [{ httpTask: { url: price } }, { jsonParseTask: { path: "$['the price']" } }] }, http)).toBe('42.5');
  });

  it('valueTask keeps the exact text of its number', async () => {
    expect(await runText('{"tasks":[{"valueTask":{"value":0.1000000000000000000001}}]}')).toBe('0.1000000000000000000001');
    expect(await run({ tasks: [{ valueTask: { big: '7' } }] })).toBe('7');
  });

  it('addTask, subtractTask and multiplyTask are exact (0.1 + 0.2 is 0.3)', async () => {
    expect(await run({ tasks: [{ valueTask: { big: '0.1' } }, { addTask: { big: '0.2' } }] })).toBe('0.3');
    expect(await run({ tasks: [{ valueTask: { big: '1' } }, { subtractTask: { big: '1.25' } }] })).toBe('-0.25');
    expect(await run({ tasks: [{ valueTask: { big: '1.1' } }, { multiplyTask: { big: '1.1' } }] })).toBe('1.21');
  });

  it('divideTask gives 18 places, truncated; by zero the job fails', async () => {
    expect(await run({ tasks: [{ valueTask: { big: '2' } }, { divideTask: { big: '3' } }] })).toBe('0.666666666666666666');
    expect(await run({ tasks: [{ valueTask: { big: '1' } }, { divideTask: { big: '8' } }] })).toBe('0.125');
    await expect(run({ tasks: [{ valueTask: { big: '1' } }, { divideTask: { big: '0' } }] })).rejects.toThrow('division by zero');
  });

  it('an operand may be a job of its own (a second source)', async () => {
    const http = sources({ [price]: '{"p":3}', 'https://prices.example/fx': '{"rate":"0.5"}' });
    const definition = {
      tasks: [
        { httpTask: { url: price } },
        { jsonParseTask: { path: '$.p' } },
        { multiplyTask: { job: { tasks: [{ httpTask: { url: 'https://prices.example/fx' } }, { jsonParseTask: { path: '$.rate' } }] } } },
      ],
    };
    expect(await run(definition, http)).toBe('1.5');
  });

  it('roundTask rounds up (away from zero) or down (toward zero)', async () => {
    expect(await run({ tasks: [{ valueTask: { big: '1.2341' } }, { roundTask: { method: 'METHOD_ROUND_UP', decimals: 3 } }] })).toBe('1.235');
    expect(await run({ tasks: [{ valueTask: { big: '1.2349' } }, { roundTask: { method: 'METHOD_ROUND_DOWN', decimals: 3 } }] })).toBe('1.234');
    expect(await run({ tasks: [{ valueTask: { big: '-1.2341' } }, { roundTask: { method: 'METHOD_ROUND_UP', decimals: 2 } }] })).toBe('-1.24');
  });

  it('medianTask and meanTask over tasks and jobs; the median of an even count is the mean of the middle two', async () => {
    expect(await run({ tasks: [{ medianTask: { tasks: [{ valueTask: { big: '3' } }, { valueTask: { big: '1' } }, { valueTask: { big: '2' } }] } }] })).toBe(
      '2',
    );
    expect(await run({ tasks: [{ medianTask: { jobs: [{ tasks: [{ valueTask: { big: '1' } }] }, { tasks: [{ valueTask: { big: '4' } }] }] } }] })).toBe('2.5');
    expect(await run({ tasks: [{ meanTask: { tasks: [{ valueTask: { big: '1' } }, { valueTask: { big: '2' } }] } }] })).toBe('1.5');
  });

  it('the median across jobs of a {"jobs": [...]} definition', async () => {
    expect(
      await run({ jobs: [{ tasks: [{ valueTask: { big: '10' } }] }, { tasks: [{ valueTask: { big: '30' } }] }, { tasks: [{ valueTask: { big: '11' } }] }] }),
    ).toBe('11');
  });

  it('boundTask passes a value in range, replaces one out of range when told, fails otherwise', async () => {
    const bounded = (value: string, extra: object = {}) =>
      run({ tasks: [{ valueTask: { big: value } }, { boundTask: { lowerBoundValue: '1', upperBoundValue: '100', ...extra } }] });
    expect(await bounded('50')).toBe('50');
    expect(await bounded('500', { onExceedsUpperBoundValue: '100' })).toBe('100');
    await expect(bounded('500')).rejects.toThrow('above its upper bound');
    await expect(bounded('0.5')).rejects.toThrow('below its lower bound');
  });

  it('a source that fails, or a path not in the response, fails the job (JobFailure)', async () => {
    await expect(run({ tasks: [{ httpTask: { url: price } }, { jsonParseTask: { path: '$.p' } }] })).rejects.toBeInstanceOf(JobFailure);
    await expect(run({ tasks: [{ httpTask: { url: price } }, { jsonParseTask: { path: '$.missing' } }] }, sources({ [price]: '{"p":1}' }))).rejects.toThrow(
      '$.missing not found',
    );
    await expect(run({ tasks: [{ httpTask: { url: price } }, { jsonParseTask: { path: '$.p' } }] }, sources({ [price]: '{"p":"abc"}' }))).rejects.toThrow(
      'is not a number',
    );
  });
});

describe('a job definition is checked before it is stored, naming the task at fault', () => {
  const field = (definition: unknown) =>
    refusal(() => parseJobDefinition(typeof definition === 'string' ? definition : JSON.stringify(definition), HOSTS, FIELD));

  it('a task outside the subset is named with its index', () => {
    const error = field({ tasks: [{ valueTask: { big: '1' } }, { addTask: { big: '1' } }, { cronParseTask: {} }] });
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field: `${FIELD}.tasks[2]` });
    expect(error.message).toContain('cronParseTask');
  });

  it('a host not in ORACLE_ALLOWED_HOSTS, a POST, headers, a wrong port', () => {
    expect(field({ tasks: [{ httpTask: { url: 'https://evil.example/x' } }] })).toMatchObject({
      field: `${FIELD}.tasks[0].httpTask.url`,
      message: expect.stringContaining('evil.example'),
    });
    expect(field({ tasks: [{ httpTask: { url: 'https://prices.example/x', method: 'METHOD_POST' } }] }).field).toBe(`${FIELD}.tasks[0].httpTask.method`);
    expect(field({ tasks: [{ httpTask: { url: 'https://prices.example/x', headers: [{ key: 'a', value: 'b' }] } }] }).field).toBe(
      `${FIELD}.tasks[0].httpTask.headers`,
    );
    expect(field({ tasks: [{ httpTask: { url: 'http://127.0.0.1:9999/x' } }] }).field).toBe(`${FIELD}.tasks[0].httpTask.url`);
  });

  it('malformed definitions: not JSON, no tasks, empty tasks, two keys, an unknown property, a bad number, a path beyond the subset', () => {
    expect(field('{not json').field).toBe(FIELD);
    expect(field({}).field).toBe(FIELD);
    expect(field({ tasks: [] }).field).toBe(`${FIELD}.tasks`);
    expect(field({ tasks: [{ valueTask: { big: '1' }, addTask: { big: '1' } }] }).field).toBe(`${FIELD}.tasks[0]`);
    expect(field({ tasks: [{ valueTask: { big: '1', extra: 1 } }] }).field).toBe(`${FIELD}.tasks[0].valueTask.extra`);
    expect(field({ tasks: [{ valueTask: { big: 'one' } }] }).field).toBe(`${FIELD}.tasks[0].valueTask.big`);
    expect(field({ tasks: [{ jsonParseTask: { path: '$..price' } }] }).field).toBe(`${FIELD}.tasks[0].jsonParseTask.path`);
    expect(field({ jobs: [{ tasks: [{ medianTask: { tasks: [{ oracleTask: {} }] } }] }] }).field).toBe(`${FIELD}.jobs[0].tasks[0].medianTask.tasks[0]`);
  });

  it('hosts: `host` allows any port, `host:port` that port only', () => {
    expect(hostAllowed(new URL('https://prices.example:8443/x'), HOSTS)).toBe(true);
    expect(hostAllowed(new URL('http://127.0.0.1:8123/x'), HOSTS)).toBe(true);
    expect(hostAllowed(new URL('http://127.0.0.1:8124/x'), HOSTS)).toBe(false);
    expect(hostAllowed(new URL('https://sub.prices.example/x'), HOSTS)).toBe(false);
  });

  it('feedHash is the SHA-256 of the definition text', () => {
    expect(feedHash('a')).toBe('ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb');
  });
});
