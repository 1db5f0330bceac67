package wrapped

import (
	"context"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

func TestNmapParse(t *testing.T) {
	full := wrapTestRead(t, "nmap/findings.xml")
	fs, err := nmapParse(full)
	if err != nil {
		t.Fatal(err)
	}
	wrapTestCheckFindings(t, "nmap", scan.TypeNetwork, fs)
	cases := []struct {
		rule, where string
		sev         finding.Severity
		cwe         finding.CWE
		product     string
	}{
		{"open-port/ftp", "127.0.0.1:40021/tcp", finding.High, "CWE-319", "vsftpd 3.0.3"},
		{"open-port/ssh", "127.0.0.1:40022/tcp", finding.Medium, "", "OpenSSH 9.2p1 Debian 2+deb12u3"},
		{"open-port/http", "127.0.0.1:40080/tcp", finding.Low, "", "SimpleHTTPServer 0.6"},
	}
	if len(fs) != len(cases) {
		t.Fatalf("%d findings, want one per open port (%d)", len(fs), len(cases))
	}
	for _, c := range cases {
		f := wrapTestFind(fs, c.rule, c.where)
		if f == nil {
			t.Errorf("no %s at %s", c.rule, c.where)
			continue
		}
		if f.Severity != c.sev || f.CWE != c.cwe || !strings.Contains(f.Title, c.product) {
			t.Errorf("%s: %s %q %q", c.rule, f.Severity, f.CWE, f.Title)
		}
	}
	if fs, err := nmapParse(wrapTestRead(t, "nmap/empty.xml")); err != nil || len(fs) != 0 {
		t.Errorf("recorded scan without open ports = %d findings, %v", len(fs), err)
	}
	for name, out := range map[string][]byte{"empty": nil, "truncated": full[:len(full)/2], "html": []byte("<html>")} {
		if _, err := nmapParse(out); err == nil {
			t.Errorf("%s output parsed without error", name)
		}
	}
}

func TestNmapExposure(t *testing.T) {
	for svc, want := range map[string]finding.Severity{
		"telnet": finding.High, "ftp": finding.High, "microsoft-ds": finding.High, "ms-wbt-server": finding.High,
		"mysql": finding.High, "postgresql": finding.High, "redis": finding.High, "mongodb": finding.High,
		"ssh": finding.Medium, "smtp": finding.Medium, "unknown": finding.Medium, "weird-thing": finding.Medium,
		"http": finding.Low, "https": finding.Low,
	} {
		if got := nmapExposure(svc).sev; got != want {
			t.Errorf("nmapExposure(%q) = %s, want %s", svc, got, want)
		}
	}
}

func TestNmapArgs(t *testing.T) {
	cases := []struct {
		host, ports string
		want        string
		wantErr     bool
	}{
		{"127.0.0.1", "", "-sT -sV -n --open -oX - -Pn 127.0.0.1", false},
		{"10.0.0.0/28", "", "-sT -sV -n --open -oX - 10.0.0.0/28", false},
		{"db.internal", "22,80,8000-8100", "-sT -sV -n --open -oX - -Pn -p 22,80,8000-8100 db.internal", false},
		{"h", "-sS", "", true},
		{"h", "22;rm", "", true},
		{"h", "22 80", "", true},
	}
	for _, c := range cases {
		args, err := nmapArgs(c.host, c.ports)
		if (err != nil) != c.wantErr || strings.Join(args, " ") != c.want {
			t.Errorf("nmapArgs(%q, %q) = %q, %v", c.host, c.ports, strings.Join(args, " "), err)
		}
	}
}

func TestNmapScanTargetsAndExit(t *testing.T) {
	tool := wrapTestFakeTool(t, "--version", "Nmap version 7.93 ( https://nmap.org )", "nmap/findings.xml", "", 0)
	s := Nmap(wrapTestConfig(map[string]string{"SVC_NMAP_PATH": tool, "SVC_NMAP_MAX_HOSTS": "16"}))
	if v, _, ok := s.Available(context.Background()); !ok || v != "7.93" {
		t.Fatalf("Available = %q %v", v, ok)
	}
	for _, h := range []string{"-iL", "10.0.0.0/24", "", "a b"} {
		if _, err := s.Scan(context.Background(), scan.Target{Host: h}); err == nil {
			t.Errorf("Scan accepted host %q", h)
		}
	}
	fs, err := s.Scan(context.Background(), scan.Target{Host: "10.0.0.0/28"})
	if err != nil || len(fs) != 3 {
		t.Fatalf("Scan = %d findings, %v", len(fs), err)
	}
	crash := wrapTestFakeTool(t, "--version", "Nmap version 7.93", "", "nmap/crash.stderr", 255)
	s = Nmap(wrapTestConfig(map[string]string{"SVC_NMAP_PATH": crash}))
	if _, err := s.Scan(context.Background(), scan.Target{Host: "127.0.0.1"}); err == nil || !strings.Contains(err.Error(), "unrecognized option") {
		t.Fatalf("crash err = %v", err)
	}
}

func FuzzNmapParse(f *testing.F) {
	f.Add(wrapTestRead(f, "nmap/findings.xml"))
	f.Add(wrapTestRead(f, "nmap/empty.xml"))
	f.Add([]byte(`<nmaprun><host><address addr="::1" addrtype="ipv6"/><ports><port protocol="tcp" portid="21"><state state="open"/><service name="ftp" product="x"/></port></ports></host></nmaprun>`))
	f.Fuzz(func(t *testing.T, out []byte) {
		fs, err := nmapParse(out)
		if err != nil {
			return
		}
		for _, x := range fs {
			if !x.Severity.Valid() || !strings.HasPrefix(x.RuleID, "open-port/") || x.FilePath == "" {
				t.Fatalf("invalid finding %+v", x)
			}
		}
	})
}
