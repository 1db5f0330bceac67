package config

var (
	if err := sysctl.SetSysctl(sysctlBridgeCallIPTables); err != nil {
)
