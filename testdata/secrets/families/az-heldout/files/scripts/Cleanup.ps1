AzureStorageCleanup.exe -storagename acmebackup `
    -storagekey rZYrThAvMPNb44Q1l6SepDwyFlJOZPJzKjHZY38/ttRlfxU5zrG+VvSIwEiK8JNQY3Kfb5HUaAYGyg5lk2nauw== `
    -container sqlbackup
