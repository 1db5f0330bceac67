this.addPassword = "#add-password";
var labels = {usernameLabel:"Username or email:",passwordLabel:"Password:",rememberMeLabel:"Remember me:"};
var form = {"password": "&lt;YOURPASSWROD&gt;"};
