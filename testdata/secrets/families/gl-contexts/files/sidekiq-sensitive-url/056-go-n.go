var sidekiqToken string = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com?param1=true&param2=false"
