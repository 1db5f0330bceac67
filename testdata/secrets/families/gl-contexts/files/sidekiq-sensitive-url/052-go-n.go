var sidekiqToken string = "http://cafebabe:deadbeef@gems.contribsys.com"
