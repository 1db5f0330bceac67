func main() {
my_password := "super$ecret"
}
