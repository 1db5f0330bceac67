<redis.client.Redis(<redis.connection.Connection(db=0,password=None,host=localhost,...)>)>
