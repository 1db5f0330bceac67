client.auth = httpx.BasicAuth(
    username="__token__", password="sk-pyx-h7WWBQWdJIFeu4S8H3ys8IGvA5o7KuBFRPCmUquX7xnsXOeqD5Q7BREJR1A69dY2"
)
client.auth = httpx.BasicAuth(
    username="__token__", password="sk-pyx-2gvGtWLgUbYcBKgYtjSXNKZyCiUoiBvcXRyxwQxrBEDGWl"
)
client.auth = httpx.BasicAuth(
    username="__token__", password="tp-pyx-h7WWBQWdJIFeu4S8H3ys8IGvA5o7KuBFRPCmUquX7xnsXOeqD5Q7BREJR1A69dY2"
)
client.auth = httpx.BasicAuth(
    username="__token__", password="tp-pyx-2gvGtWLgUbYcBKgYtjSXNKZyCiUoiBvcXRyxwQxrBEDGWl"
)
