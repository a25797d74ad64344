/** An instrument's logo: the content type sent must be the one served; the record keeps what was sent and where the copy is served. */
import { checkLogoContentType, logoRecord } from '../../../src/domain/operations/financial-instruments/instrument-logo.rules';
import { refusal } from '../../support/expectations';

describe('an instrument logo', () => {
  it('refuses a content type other than the one served, naming it; any case of the same one, or none, passes', () => {
    expect(refusal(() => checkLogoContentType({ copyFromUri: 'https://x/a.png', contentType: 'image/jpeg' }, 'image/png'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.offchainData.logo.contentType',
      message: 'the logo is image/png, not image/jpeg',
    });
    expect(() => checkLogoContentType({ copyFromUri: 'https://x/a.png', contentType: 'IMAGE/PNG' }, 'image/png')).not.toThrow();
    expect(() => checkLogoContentType({ copyFromUri: 'https://x/a.png' }, 'image/png')).not.toThrow();
  });

  it("records what was sent, LOGO by default, and the copy's type, size, file and url", () => {
    expect(logoRecord({ copyFromUri: 'https://x/a.png', fileName: 'a.png' }, { contentType: 'image/png', size: 12, storedFileId: 'f1' })).toEqual({
      copyFromUri: 'https://x/a.png',
      fileName: 'a.png',
      type: 'LOGO',
      contentType: 'image/png',
      size: 12,
      storedFileId: 'f1',
      url: '/api/v1/files/f1',
    });
  });
});
