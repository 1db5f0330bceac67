# gem server for the enterprise build
GEM_SOURCE = "http://cafeb4b3:d3adb33f@enterprise.contribsys.com:80/path?param1=true"
