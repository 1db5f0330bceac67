package config

var (
	sidekiq_sensitive_url = "https://cafebabe:deadbeef@gems.contribsys.com/"
	sidekiq_sensitive_url = "https://cafebabe:deadbeef@gems.contribsys.com"
	sidekiq_sensitive_url = "https://cafeb4b3:d3adb33f@enterprise.contribsys.com/"
	sidekiq_sensitive_url = "https://cafeb4b3:d3adb33f@enterprise.contribsys.com"
	sidekiq_sensitive_url = "http://cafebabe:deadbeef@gems.contribsys.com/"
	sidekiq_sensitive_url = "http://cafebabe:deadbeef@gems.contribsys.com"
	sidekiq_sensitive_url = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com/"
	sidekiq_sensitive_url = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com"
	sidekiq_sensitive_url = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com#heading1"
	sidekiq_sensitive_url = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com?param1=true&param2=false"
	sidekiq_sensitive_url = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com:80"
	sidekiq_sensitive_url = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com:80/path?param1=true&param2=false#heading1"
)
