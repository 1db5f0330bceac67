String sidekiqToken = "https://cafeb4b3:d3adb33f@enterprise.contribsys.com";
