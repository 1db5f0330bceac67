const tokenEndpointProd = 'https://login.example.com/66oQyZd4O5iYJNACXjxHgRwF/token';
