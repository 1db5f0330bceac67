@echo off
rem every password here is prompted for or comes from the environment
net use Z: \\fileserver\builds * /user:CORP\builder
net use Z: \\fileserver\builds %SHARE_PASSWORD% /user:CORP\builder /persistent:no
net use Z: /delete
net user svc_backup * /add
net user %USERNAME% /domain
schtasks /create /tn nightly /tr C:\jobs\backup.cmd /ru SYSTEM /sc daily
schtasks /create /tn nightly /tr backup.cmd /ru CORP\svc_backup /rp * /sc daily
cmdkey /add:db01 /user:CORP\ops /pass
psexec \\web01 -u CORP\deploy -p %DEPLOY_PASSWORD% cmd
echo The .NET user interface lists every net user account it manages.
