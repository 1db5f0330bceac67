locals {
public_key = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"
notes            = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2"
}
