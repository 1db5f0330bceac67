    std::string apiKey = "ozta5PDUdB3t0GBo4wgQrIrdKNdkZ5bzedZ64enPw6i00exvbXGwJQQJ99RKKehKHksGbLfQLOnbACOGb3KL";
