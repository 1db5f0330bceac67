$sidekiqToken .= "https://cafebabe:deadbeef@gems.contribsys.com/"
