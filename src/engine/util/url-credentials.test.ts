import { describe, expect, it } from 'vitest'
import { displayUrl, hostOf, scrubUrlSecrets, urlSecrets } from './url-credentials'

describe('displayUrl', () => {
  it('masks a user:pass or a user before the host', () => {
    expect(displayUrl('https://ana:s3cret@llm.example.com/v1')).toBe('https://***@llm.example.com/v1')
    expect(displayUrl('http://token123@127.0.0.1:8080/v1/chat/completions')).toBe('http://***@127.0.0.1:8080/v1/chat/completions')
    // An @ in the path is not a user part.
    expect(displayUrl('https://h.example/v1/@scope/pkg')).toBe('https://h.example/v1/@scope/pkg')
  })

  it('masks the values of credential query parameters, keeping the others as written', () => {
    expect(displayUrl('https://h.example/v1?key=AIzaSyExample&alt=sse')).toBe('https://h.example/v1?key=***&alt=sse')
    expect(displayUrl('https://h.example/v1?api_key=abc&API-KEY=def&apikey=ghi&x=1#key=frag')).toBe(
      'https://h.example/v1?api_key=***&API-KEY=***&apikey=***&x=1#key=frag',
    )
    expect(displayUrl('https://h.example/x?access_token=t1&client_secret=c2&password=p3&sig=s4')).toBe(
      'https://h.example/x?access_token=***&client_secret=***&password=***&sig=***',
    )
    expect(displayUrl('https://b.s3.example/o?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ff00&X-Amz-Date=20250101')).toBe(
      'https://b.s3.example/o?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Date=20250101',
    )
    // Both at once; an empty value stays empty.
    expect(displayUrl('https://u:p@h.example/v1?key=&token=zz')).toBe('https://***@h.example/v1?key=&token=***')
  })

  it('leaves URLs without credentials and text that is no URL unchanged', () => {
    for (const url of ['https://api.openai.com/v1', 'http://localhost:11434/v1', 'https://h.example/v1?keyboard=1&monkey=2', 'not a url', '']) {
      expect(displayUrl(url)).toBe(url)
    }
  })
})

describe('hostOf', () => {
  it('is host[:port], never the user part; text without a scheme comes back as it is', () => {
    expect(hostOf('http://127.0.0.1:1234/v1/chat/completions')).toBe('127.0.0.1:1234')
    expect(hostOf('https://ana:s3cret@llm.example.com/v1')).toBe('llm.example.com')
    expect(hostOf('https://h.example?key=abc')).toBe('h.example')
    expect(hostOf('localhost')).toBe('localhost')
  })
})

describe('urlSecrets and scrubUrlSecrets', () => {
  const url = 'https://ana:p%40ss-word@h.example/v1?key=k-123456&x=1'

  it('lists user:pass, the password (as written and decoded) and credential query values, longest first', () => {
    expect(urlSecrets(url)).toEqual(['ana:p%40ss-word', 'ana:p@ss-word', 'p%40ss-word', 'p@ss-word', 'k-123456'])
    expect(urlSecrets('https://h.example/v1')).toEqual([])
  })

  it('shows the URL masked in a message and removes its credentials wherever else they appear', () => {
    expect(scrubUrlSecrets(`refused ${url} (credentials)`, url)).toBe('refused https://***@h.example/v1?key=***&x=1 (credentials)')
    // Normalised by a URL parser (a trailing slash, the path re-encoded): the pieces go all the same.
    expect(scrubUrlSecrets('Request cannot be constructed from a URL that includes credentials: https://ana:p%40ss-word@h.example/v1/?key=k-123456', url)).toBe(
      'Request cannot be constructed from a URL that includes credentials: https://***@h.example/v1/?key=***',
    )
    expect(scrubUrlSecrets('the password p@ss-word was refused', url)).toBe('the password *** was refused')
  })

  it('leaves ordinary text alone: a credential under 3 code units is only masked inside the URL', () => {
    const short = 'https://a:b@h.example/v1'
    expect(scrubUrlSecrets(`about ${short} and a b`, short)).toBe('about https://***@h.example/v1 and a b')
  })
})
