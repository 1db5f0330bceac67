this.resetPassword = "#reset-password";
var text = {loginLabel:"Login name:",passwordLabel:"Password:",rememberLabel:"Remember me"};
router.post('/change-password' => "accounts/passwords#change", as: 'change_password');
run: echo 'export API_TOKEN="'$CI_API_TOKEN'"' >> .env
