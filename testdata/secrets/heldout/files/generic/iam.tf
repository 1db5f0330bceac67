IAMUserChangePassword = "arn:aws:iam::aws:policy/IAMUserChangePassword"
client_vpn_endpoint_id = aws_ec2_client_vpn_endpoint.client-vpn-endpoint.id
