zendeskToken = "1gwdipwx4sj23tpn691dqs36ym0o0k1m3tzpv5q2"
