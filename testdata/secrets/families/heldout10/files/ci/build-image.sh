docker build --build-arg BUNDLE_ENTERPRISE__CONTRIBSYS__COM=57ebe29e:3a3067dd -t orders .
