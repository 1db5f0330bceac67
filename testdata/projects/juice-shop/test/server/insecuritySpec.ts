import chai from 'chai'
const expect = chai.expect

describe('insecurity', () => {
  it('rejects an invalid token', () => {
    const token = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJub25lIn0.eyJkYXRhIjp7ImVtYWlsIjoiamltQGp1aWNlLXNoLm9wIn19.'
    expect(token).to.not.equal(undefined)
  })
})
