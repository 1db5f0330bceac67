{"auth_provider_x509_cert_url":"https://example.com","client_email":"example@example.com"}
