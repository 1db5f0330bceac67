sidekiqToken := "http://cafebabe:deadbeef@gems.contribsys.com/"
