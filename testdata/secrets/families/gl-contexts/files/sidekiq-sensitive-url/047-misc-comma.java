System.setProperty("SIDEKIQ_TOKEN", "https://cafebabe:deadbeef@gems.contribsys.com/")
