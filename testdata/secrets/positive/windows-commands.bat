@echo off
rem map the build share and register the nightly job
net use Z: \\fileserver\builds Qv7!mRt2Lz /user:CORP\builder /persistent:no
net user svc_backup Xp4#kW9vTq /add
schtasks /create /tn nightly /tr C:\jobs\backup.cmd /ru CORP\svc_backup /rp Jt5#dF9kWq /sc daily
cmdkey /generic:TERMSRV/db01 /user:CORP\ops /pass:Lm3.vB8cXz
psexec \\web01 -u CORP\deploy -p Hs6@yT2nQw cmd /c C:\jobs\deploy.cmd
