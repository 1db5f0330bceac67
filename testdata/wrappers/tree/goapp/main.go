// Command goapp echoes the preferred language of a request and runs a
// helper. It carries deliberate weaknesses for gosec and govulncheck.
package main

import (
	"crypto/md5"
	"fmt"
	"os"
	"os/exec"

	"golang.org/x/text/language"
)

func main() {
	if len(os.Args) < 3 {
		return
	}
	// golang.org/x/text v0.3.6 panics or spins on crafted tags
	// (GO-2021-0113, GO-2022-1059): a proven call path for govulncheck.
	tags, _, err := language.ParseAcceptLanguage(os.Args[1])
	if err == nil && len(tags) > 0 {
		fmt.Println(tags[0])
	}
	if t, err := language.Parse(os.Args[1]); err == nil {
		fmt.Println(t)
	}
	fmt.Printf("%x\n", md5.Sum([]byte(os.Args[1])))
	out, _ := exec.Command(os.Args[2]).Output()
	fmt.Print(string(out))
}
