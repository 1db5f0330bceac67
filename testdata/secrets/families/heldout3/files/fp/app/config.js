  apiKey: this.apiKey,
  apiKey: fs.readFileSync('foo',
  password: ${link}
