upstageToken := "NvBikoOPIIovY4hMI6sdEQErhQ9CXDLQFh7LW8N7"
