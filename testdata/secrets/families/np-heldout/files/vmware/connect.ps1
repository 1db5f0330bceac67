Connect-VIServer -Server 192.168.1.51 -User administrator@vSphere.local -Password VMware1!
#Set-PowerCLIConfiguration -InvalidCertificateAction:Ignore
Connect-VIServer "$endpoint" -User "$username" -Password "$password" | Out-Null
Connect-VIServer $ESXiHost.EsxiHost -user $ESXiUser -password $ESXipass
$null = connect-viserver vc.lab.local -user administrator@vsphere.local -password VMware1!
