var razorpay = new Razorpay("rzp_live_8mQ2kLpV3xRbYe", secret);
