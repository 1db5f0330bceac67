client = Anthropic(api_key="sk-ant-admin01-jz-MVYBL2tSrC5Qd7lHNPGWyAztKd7MR6KK8YUIxVEmvAJOYMj28xTLcO37h9OnFJ9DdVJUxNCfh-ZGiezux57YpARWZcAA")
OLD = "sk-ant-admin01-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzBB"
