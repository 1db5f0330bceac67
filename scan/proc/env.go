package proc

import "os"

// lookupEnv reads the process environment only to build a child's minimal
// environment; scand's configuration never comes from here (see Config).
func lookupEnv(k string) (string, bool) { return os.LookupEnv(k) }
