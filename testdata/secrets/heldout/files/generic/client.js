class Client {
  constructor(opts) {
    this.config = { apiKey: this.apiKey, };
    this.secret = { apiKey: fs.readFileSync('foo', 'utf8') };
  }
}
