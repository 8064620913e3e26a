import { describe, expect, it } from 'vitest'
import { createRedactor, describeRedactions, SECRET_RULES } from './redact'

// Invented secrets in the shapes the providers issue (none is a real key).
const OPENAI = 'sk-proj-AbCdEfGhIjKlMnOpQrStUv12'
const ANTHROPIC = 'sk-ant-api03-ZyXwVuTsRqPoNmLk'
const AWS = 'AKIAABCDEFGHIJKLMNOP'
const GITHUB = 'ghp_0123456789abcdefghijABCDEFGHIJ'
const SLACK = 'xoxb-1234567890-abcdefghij'
const GOOGLE = 'AIzaSyA1234567890abcdefghijklmnopqrstuv'
const STRIPE = 'sk_live_51AbCdEfGhIjKlMnOpQr'
const STRIPE_TEST = 'rk_test_51ZyXwVuTsRqPoNmLk'
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlX2hlcmU'

describe('createRedactor', () => {
  it('replaces each key shape, numbering distinct values in order of first appearance', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text(`a ${OPENAI} b ${ANTHROPIC} c ${AWS}`)).toBe('a [key-1] b [key-2] c [key-3]')
    expect(r.text(`${GITHUB} ${SLACK} ${GOOGLE} ${JWT}`)).toBe('[key-4] [key-5] [key-6] [key-7]')
    // The same value in a later text keeps its placeholder.
    expect(r.text(`again ${ANTHROPIC}`)).toBe('again [key-2]')
    expect(r.counts()).toEqual({ keys: 7, emails: 0, homes: 0, strings: 0 })
    expect(r.text(`stripe ${STRIPE} and ${STRIPE_TEST}`)).toBe('stripe [key-8] and [key-9]')
  })

  it('numbers keys of different shapes in the order they appear in the text', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text(`${AWS} then ${OPENAI} then ${AWS}`)).toBe('[key-1] then [key-2] then [key-1]')
  })

  it('replaces only the token of a Bearer header, and a JWT bearer once', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text('Authorization: Bearer abc123DEF456ghi')).toBe('Authorization: Bearer [key-1]')
    expect(r.text(`Authorization: Bearer ${JWT}`)).toBe('Authorization: Bearer [key-2]')
    expect(r.counts().keys).toBe(2)
  })

  it('replaces a value it learned wherever it appears later, and a cut-off head of one at a text end', () => {
    const r = createRedactor({ patterns: true, strings: ['Project Zebra'] })
    r.learn([`mail ana.silva@example.org key ${AWS} on Project Zebra`])
    expect(r.counts()).toEqual({ keys: 1, emails: 1, homes: 0, strings: 1 })
    // Cut mid-value: the pattern no longer matches, the known value's head goes all the same.
    expect(r.text('mail ana.silva@exa')).toBe('mail [email-1]')
    expect(r.text(`key ${AWS.slice(0, 17)}`)).toBe('key [key-1]')
    expect(r.text('on Project Ze')).toBe('on [redacted-1]')
    // A known key glued to a word (no \b for the pattern) is still replaced.
    expect(r.text(`x${AWS}y`)).toBe('x[key-1]y')
    // Heads shorter than 4 code units stay: they would eat ordinary word endings.
    expect(r.text('on Pro')).toBe('on Pro')
    expect(r.text('ana')).toBe('ana')
  })

  it('leaves words that only contain the prefixes alone', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    const text = 'task-runner-configuration-file and sk-short and Bearer of bad news'
    expect(r.text(text)).toBe('task-runner-configuration-file and sk-short and Bearer of bad news')
    expect(r.counts()).toEqual({ keys: 0, emails: 0, homes: 0, strings: 0 })
  })

  it('replaces e-mail addresses and the user part of home paths consistently', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text('mail ana.silva@example.org or bo@test.example.com; ana.silva@example.org')).toBe(
      'mail [email-1] or [email-2]; [email-1]',
    )
    expect(r.text('/home/ana/src/app.ts and /Users/bo/notes.md and C:\\Users\\ana\\x.txt')).toBe(
      '/home/[user-1]/src/app.ts and /Users/[user-2]/notes.md and C:\\Users\\[user-1]\\x.txt',
    )
    expect(r.text('{"path":"C:\\\\Users\\\\cy\\\\a"}')).toBe('{"path":"C:\\\\Users\\\\[user-3]\\\\a"}')
    expect(r.counts()).toEqual({ keys: 0, emails: 2, homes: 3, strings: 0 })
  })

  it('replaces chosen strings exactly, longest first, blank lines ignored, even without the patterns', () => {
    const r = createRedactor({ patterns: false, strings: ['Acme', ' Acme Corp ', '', 'ana@example.org'] })
    expect(r.text('Acme Corp and Acme; ana@example.org; other@example.org')).toBe(
      '[redacted-1] and [redacted-2]; [redacted-3]; other@example.org',
    )
    expect(r.counts()).toEqual({ keys: 0, emails: 0, homes: 0, strings: 3 })
  })

  it('without options passes text through', () => {
    const r = createRedactor()
    expect(r.text(`${OPENAI} ana@example.org /home/ana`)).toBe(`${OPENAI} ana@example.org /home/ana`)
    expect(r.counts()).toEqual({ keys: 0, emails: 0, homes: 0, strings: 0 })
  })
})

describe('describeRedactions', () => {
  it('words each non-zero count', () => {
    expect(describeRedactions({ keys: 2, emails: 1, homes: 3, strings: 0 })).toBe('2 keys, 1 e-mail address, 3 home paths')
    expect(describeRedactions({ keys: 1, emails: 2, homes: 1, strings: 1 })).toBe('1 key, 2 e-mail addresses, 1 home path, 1 chosen string')
    expect(describeRedactions({ keys: 0, emails: 0, homes: 0, strings: 0 })).toBe('nothing to redact')
  })
})

/**
 * One invented example (none is a real key) of every secret shape the patterns know: `text` as it
 * may stand in a transcript, `secret` the part that must go (the rest stays, so a name such as
 * `password=` still says what was there).
 */
const B64_40 = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
const PEM_BODY = 'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yW4bC1rdD2y4L0p7vZ9XzR1s9F2kN3lq0Q=='
const SECRET_EXAMPLES: { what: string; text: string; secret: string }[] = [
  { what: 'OpenAI legacy', text: 'key sk-AbCdEfGhIjKlMnOpQrStT3BlbkFJuVwXyZ012345 set', secret: 'sk-AbCdEfGhIjKlMnOpQrStT3BlbkFJuVwXyZ012345' },
  { what: 'OpenAI project', text: 'OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90KlMnOpQrSt_uv-WX', secret: 'sk-proj-Ab12Cd34Ef56Gh78Ij90KlMnOpQrSt_uv-WX' },
  { what: 'Anthropic', text: 'x-api-key: sk-ant-api03-Zy98Xw76Vu54Ts32Rq10-PoNmLkJiHgFeDcBaAA', secret: 'sk-ant-api03-Zy98Xw76Vu54Ts32Rq10-PoNmLkJiHgFeDcBaAA' },
  { what: 'GitHub ghp_', text: 'token ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5 ok', secret: 'ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5' },
  { what: 'GitHub gho_', text: 'gho_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn', secret: 'gho_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn' },
  { what: 'GitHub ghu_', text: '(ghu_0a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r)', secret: 'ghu_0a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r' },
  { what: 'GitHub ghs_', text: 'GITHUB_TOKEN ghs_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8', secret: 'ghs_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8' },
  { what: 'GitHub ghr_', text: 'refresh ghr_M1n2B3v4C5x6Z7l8K9j0H1g2F3d4S5a6P7o8I9u0Y1t2R3e4W5q6', secret: 'ghr_M1n2B3v4C5x6Z7l8K9j0H1g2F3d4S5a6P7o8I9u0Y1t2R3e4W5q6' },
  { what: 'GitHub fine-grained', text: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX done', secret: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX' },
  { what: 'GitLab', text: "--build-arg 'GO_REPO_TOKEN=glpat-tFrjFXD7soVU2fqxuDMh'", secret: 'glpat-tFrjFXD7soVU2fqxuDMh' },
  { what: 'Hugging Face', text: 'huggingface-cli login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh', secret: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh' },
  { what: 'Slack bot', text: 'SLACK xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp', secret: 'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp' },
  { what: 'Slack user', text: 'xoxp-1111111111-2222222222-3333333333-abcdef0123456789', secret: 'xoxp-1111111111-2222222222-3333333333-abcdef0123456789' },
  { what: 'Slack app-level', text: 'xoxa-2-1234567890-abcdefghij', secret: 'xoxa-2-1234567890-abcdefghij' },
  { what: 'Slack refresh', text: 'xoxr-1234567890-abcdefghij', secret: 'xoxr-1234567890-abcdefghij' },
  { what: 'Stripe live', text: 'stripe sk_live_51HxYzAbCdEfGhIjKlMnOpQr', secret: 'sk_live_51HxYzAbCdEfGhIjKlMnOpQr' },
  { what: 'Stripe restricted', text: 'rk_live_51HxYzAbCdEfGhIjKlMnOpQr,', secret: 'rk_live_51HxYzAbCdEfGhIjKlMnOpQr' },
  { what: 'Google', text: 'maps key=AIzaSyD-1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTu', secret: 'AIzaSyD-1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTu' },
  { what: 'AWS key id', text: 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE', secret: 'AKIAIOSFODNN7EXAMPLE' },
  { what: 'AWS session key id', text: '"AccessKeyId": "ASIAY34FZKBOKMUTVV7A"', secret: 'ASIAY34FZKBOKMUTVV7A' },
  { what: 'AWS secret (credentials file)', text: `aws_secret_access_key = ${B64_40}\nregion = eu-west-1`, secret: B64_40 },
  { what: 'AWS secret (env)', text: `export AWS_SECRET_ACCESS_KEY=${B64_40}`, secret: B64_40 },
  { what: 'AWS secret (STS JSON)', text: `{"SecretAccessKey": "${B64_40}", "Expiration": "2025"}`, secret: B64_40 },
  { what: 'JWT', text: 'id_token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJlLWhlcmUtMTIz end', secret: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJlLWhlcmUtMTIz' },
  { what: 'Bearer', text: 'curl -H "Authorization: Bearer 0a1b2c3d4e5f6a7b8c9d" https://x', secret: '0a1b2c3d4e5f6a7b8c9d' },
  { what: 'Basic', text: 'Authorization: Basic YW5hOnMzY3JldC1wdw==', secret: 'YW5hOnMzY3JldC1wdw==' },
  { what: 'npm', text: '//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', secret: 'npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' },
  { what: 'PyPI', text: 'password = pypi-AgEIcHlwaS5vcmcCJGFiY2RlZjAxLTIzNDUtNjc4OS1hYmNkLWVmMDEyMzQ1Njc4OQ', secret: 'pypi-AgEIcHlwaS5vcmcCJGFiY2RlZjAxLTIzNDUtNjc4OS1hYmNkLWVmMDEyMzQ1Njc4OQ' },
  { what: 'SendGrid', text: 'SENDGRID SG.AbCdEfGhIjKlMnOpQrStUv.WxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01234', secret: 'SG.AbCdEfGhIjKlMnOpQrStUv.WxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01234' },
  { what: 'Twilio API key', text: 'twilio SK0123456789abcdef0123456789abcdef used', secret: 'SK0123456789abcdef0123456789abcdef' },
  { what: 'Twilio auth token', text: 'TWILIO_AUTH_TOKEN=0123456789abcdef0123456789abcdef', secret: '0123456789abcdef0123456789abcdef' },
  {
    what: 'Azure storage',
    text: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net',
    secret: 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==',
  },
  { what: 'Groq', text: 'GROQ gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKl', secret: 'gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKl' },
  { what: 'Google OAuth', text: 'access ya29.a0AfH6SMBx1y2z3AbCdEfGhIjKlMnOp', secret: 'ya29.a0AfH6SMBx1y2z3AbCdEfGhIjKlMnOp' },
  { what: 'Slack webhook', text: 'post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now', secret: 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX' },
  ...['RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ', ''].map((kind) => {
    const block = `-----BEGIN ${kind}PRIVATE KEY-----\n${PEM_BODY}\n-----END ${kind}PRIVATE KEY-----`
    return { what: `PEM ${kind || 'PKCS#8 '}private key`, text: `cat id:\n${block}\ndone`, secret: block }
  }),
  {
    what: 'PGP private key block',
    text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF4abc123\n=AbCd\n-----END PGP PRIVATE KEY BLOCK----- ok`,
    secret: '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF4abc123\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----',
  },
  {
    what: 'PEM key in JSON-escaped text, cut off before its END line',
    text: `{"out":"-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\\nygWyF8Pbn`,
    secret: '-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\\nygWyF8Pbn',
  },
  { what: 'password in a URL', text: 'DATABASE_URL postgres://app:Tr0ub4dor-3@db.internal:5432/app', secret: 'Tr0ub4dor-3' },
  { what: 'key in a URL query', text: 'GET https://api.example.com/v1/data?page=2&api_key=q1w2e3r4t5y6 200', secret: 'q1w2e3r4t5y6' },
  { what: 'password=', text: 'mysql -u root --password=hunter22 db', secret: 'hunter22' },
  { what: 'api_key=', text: 'API_KEY=9f8e7d6c5b4a', secret: '9f8e7d6c5b4a' },
  { what: 'JSON client_secret', text: '{"client_id": "abc", "client_secret": "Xy7-QwErTy-123"}', secret: 'Xy7-QwErTy-123' },
  { what: 'YAML password', text: 'db:\n  password: S3cure!Pass\n  host: x', secret: 'S3cure!Pass' },
]

/** Text that looks near a secret and must stay as it is. */
const NOT_SECRETS: { what: string; text: string }[] = [
  { what: 'prose about keys', text: 'Set the password in your settings, then rotate the API key; the token expires after a day.' },
  { what: 'a setting and a placeholder', text: 'password: required\napi_key=${OPENAI_API_KEY}\ntoken: <your token>\nAPI_KEY=changeme-later' },
  { what: 'a number', text: 'max token: 128000 and keep_tokens=5000' },
  { what: 'git log hashes', text: 'commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: x\n    fix: sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
  { what: 'a 40-character base64 with no name', text: `the blob ${B64_40} is a hash` },
  { what: 'identifiers with the prefixes', text: 'hf_hub_download(repo) and sk-learn and glpat-short and npm_config and SGD.step' },
  { what: 'a public key', text: '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----' },
  { what: 'a URL without credentials', text: 'see https://example.com/docs?page=2&sort=asc and user@host:repo.git' },
  { what: 'Bearer in prose', text: 'Bearer authentication is the bearer of the token' },
]

describe('the secret shapes', () => {
  it.each(SECRET_EXAMPLES)('$what: the secret goes, the text around it stays', ({ text, secret }) => {
    expect(text).toContain(secret)
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text(text)).toBe(text.split(secret).join('[key-1]'))
    expect(r.counts().keys).toBe(1)
  })

  it.each(NOT_SECRETS)('$what: stays as it is', ({ text }) => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text(text)).toBe(text)
    expect(r.counts().keys).toBe(0)
  })

  it('every rule finds at least one example', () => {
    const unused = SECRET_RULES.filter((rule) => !SECRET_EXAMPLES.some(({ text }) => [...text.matchAll(rule.re)].length > 0))
    expect(unused.map((r) => r.what)).toEqual([])
  })
})
