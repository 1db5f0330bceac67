# Replace 'your_email' and 'your_api_token' with your actual email and Jira API token
email = 'info@example.com'
api_token = 'ATATT3xFfGF0pogUFVOH0_AjBEA8LJcnOJx_Ki4yl_PYkv-LwEBQQp3r37KZYnKm8IGQ-KKXDxCl7qnzxF7BRF0a3pwEeAuKEo3iLK7bHXNQgZgVBAURy4RnTnYXwyifmYqWlCAW5J7u04BqXA6pSSceOPQewIpy2CQzDe8MRqmqZw-zcpzSRS0=110E6FC6'
