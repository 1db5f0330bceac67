System.setProperty("SIDEKIQ_TOKEN", "http://cafebabe:deadbeef@gems.contribsys.com/")
