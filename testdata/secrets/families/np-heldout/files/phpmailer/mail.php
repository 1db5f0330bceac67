<?php
require 'PHPMailerAutoload.php';

function SendMail($sub,$to,$msg)
{
    $mail = new PHPMailer;
    $mail->isSMTP();                                      // Set mailer to use SMTP
    $mail->Host = 'smtp.gmail.com';  // Specify main and backup SMTP servers
    $mail->SMTPAuth = true;                               // Enable SMTP authentication
    $mail->SMTPSecure = 'tls';                            // Enable encryption, 'ssl' also accepted
    $mail->Username = 'ersatz.technologies@example.com';                 // SMTP username



    $mail->Password = 'un!techwhooah';                           // SMTP password
    $mail->From = 'from@example.com';
    $mail->FromName = 'Admin';
