package proc

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A test binary re-run with this variable set plays a scand that starts a
// tool and is then killed outright.
const deathParentEnv = "SCAND_PROC_TEST_DEATH_PARENT"

func TestMain(m *testing.M) {
	if marker := os.Getenv(deathParentEnv); marker != "" {
		os.Stdout.WriteString("started\n")
		NewRunner(time.Minute).Run(context.Background(), Cmd{Program: "sleep", Args: []string{marker}})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestToolDiesWithAKilledScand(t *testing.T) {
	// Unique per run: a tool left by an earlier, failed run must not count.
	marker := "8888." + strconv.Itoa(os.Getpid())
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), deathParentEnv+"="+marker)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, _ := out.Read(buf); !strings.HasPrefix(string(buf[:n]), "started") {
		t.Fatalf("the parent said %q", buf[:n])
	}
	countTools := func() int {
		left := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), "sleep\x00"+marker) {
				if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
					left++
				}
			}
		}
		return left
	}
	deadline := time.Now().Add(10 * time.Second)
	for countTools() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the tool never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	parent.Process.Kill()
	parent.Wait()
	for countTools() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the tool outlived the scand that started it")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
