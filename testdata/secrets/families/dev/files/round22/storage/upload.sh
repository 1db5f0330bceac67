AZURE_BLOB_SAS_TOKEN="sp=racwdl&st=2026-03-04T07:24:52Z&se=2026-09-04T15:24:52Z&spr=https&sv=2022-11-02&sr=c&sig=q7Lr2Xk9Vb4Nw8Tz3Hc6Jm1Pd5Fs0Gy2Ke7Ra9Ub4Wq%3D"
curl -X PUT -T report.csv "https://corpdata.blob.core.windows.net/exports/report.csv?sv=2023-01-03&ss=b&srt=o&sp=w&se=2026-12-31T00:00:00Z&sig=Fj3Kp8Wm2Qx7Vz4Nb9Ht6Ls1Rc5Dy0Ge8Ua3Xo7Ti2Y%3D" -H "x-ms-blob-type: BlockBlob"
AZURE_BLOB_SAS_TOKEN="sv=2022-11-02&sr=c&se=2026-09-04T15:24:52Z&sp=r&sig=<signature>"
