import { fetchLogo } from '../../src/storage/logo-fetcher';
import { isPrivateAddress } from '../../src/network/outbound-url';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
  ])('%s is not public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });
  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111'])('%s is public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe('fetchLogo', () => {
  const field = 'itemData.offchainData.logo.copyFromUri';
  const never = (async () => {
    throw new Error('must not be called');
  }) as unknown as typeof fetch;

  it('refuses private addresses unless configured, before any request is made', async () => {
    const error = await fetchLogo('http://127.0.0.1:9/logo.png', { allowPrivateAddresses: false, maxBytes: 1000 }, field, never).catch((e) => e);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field });
    expect(error.message).toContain('private address');
    const metadata = await fetchLogo('http://169.254.169.254/latest/meta-data', { allowPrivateAddresses: false, maxBytes: 1000 }, field, never).catch((e) => e);
    expect(metadata.message).toContain('private address');
  });

  it('refuses other schemes', async () => {
    const error = await fetchLogo('file:///etc/passwd', { allowPrivateAddresses: true, maxBytes: 1000 }, field, never).catch((e) => e);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  it('refuses a body over the limit even without a content-length', async () => {
    const big = (async () => new Response(new Uint8Array(2000), { headers: { 'content-type': 'image/png' } })) as unknown as typeof fetch;
    const error = await fetchLogo('http://8.8.8.8/logo.png', { allowPrivateAddresses: false, maxBytes: 1000 }, field, big).catch((e) => e);
    expect(error.message).toContain('over 1000 bytes');
  });

  it('keeps the bytes and content type of an image', async () => {
    const png = (async () =>
      new Response(new Uint8Array([137, 80, 78, 71]), { headers: { 'content-type': 'image/png; charset=binary' } })) as unknown as typeof fetch;
    const logo = await fetchLogo('http://8.8.8.8/logo.png', { allowPrivateAddresses: false, maxBytes: 1000 }, field, png);
    expect(logo).toEqual({ bytes: Buffer.from([137, 80, 78, 71]), contentType: 'image/png' });
  });
});
