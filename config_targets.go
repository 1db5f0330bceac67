package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"scand/scan/repo"
)

// targetConfig is the configuration of image and repository targets.
type targetConfig struct {
	WorkDir         string
	MaxBytes        int64
	MaxFiles        int
	Timeout         time.Duration
	GitAllow        []string
	CredentialsFile string
	CAFile          string
}

func parseTargetSettings(values map[string]string, bad func(env, msg string)) targetConfig {
	var t targetConfig
	if t.WorkDir = strings.TrimSpace(values["SVC_WORK_DIR"]); t.WorkDir != "" {
		if info, err := os.Stat(t.WorkDir); !filepath.IsAbs(t.WorkDir) || err != nil || !info.IsDir() {
			bad("SVC_WORK_DIR", "must be an absolute path of an existing directory, got "+strconv.Quote(t.WorkDir))
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(values["SVC_TARGET_MAX_BYTES"]), 10, 64)
	if err != nil || n < 1<<20 {
		bad("SVC_TARGET_MAX_BYTES", "must be a number of bytes of at least 1048576, got "+strconv.Quote(values["SVC_TARGET_MAX_BYTES"]))
	}
	t.MaxBytes = n
	files, err := strconv.Atoi(strings.TrimSpace(values["SVC_TARGET_MAX_FILES"]))
	if err != nil || files < 1 || files > 100_000_000 {
		bad("SVC_TARGET_MAX_FILES", "must be an integer from 1 to 100000000, got "+strconv.Quote(values["SVC_TARGET_MAX_FILES"]))
	}
	t.MaxFiles = files
	secs, err := strconv.Atoi(strings.TrimSpace(values["SVC_TARGET_TIMEOUT"]))
	if err != nil || secs < 1 || secs > 86400 {
		bad("SVC_TARGET_TIMEOUT", "must be an integer from 1 to 86400, got "+strconv.Quote(values["SVC_TARGET_TIMEOUT"]))
	}
	t.Timeout = time.Duration(secs) * time.Second
	for _, h := range strings.Split(values["SVC_GIT_ALLOW"], ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			t.GitAllow = append(t.GitAllow, h)
		}
	}
	t.CredentialsFile = strings.TrimSpace(values["SVC_GIT_CREDENTIALS_FILE"])
	if err := repo.CheckCredentialsFile(t.CredentialsFile); err != nil {
		bad("SVC_GIT_CREDENTIALS_FILE", err.Error())
	}
	if t.CAFile = strings.TrimSpace(values["SVC_GIT_CA_FILE"]); t.CAFile != "" {
		if info, err := os.Stat(t.CAFile); !filepath.IsAbs(t.CAFile) || err != nil || !info.Mode().IsRegular() {
			bad("SVC_GIT_CA_FILE", "must be an absolute path of a PEM file, got "+strconv.Quote(t.CAFile))
		}
	}
	return t
}
