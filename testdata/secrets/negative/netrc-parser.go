package netrc

// A netrc parser names the fields; its tests carry netrc text that is no
// .netrc file.
type line struct {
	machine  string
	login    string
	password string
}

var fixture = `
machine build.corp.internal
  login ci
  password Wq4zT8vKr2
`
