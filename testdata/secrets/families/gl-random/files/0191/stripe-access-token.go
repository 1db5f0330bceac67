stripeToken := "sk_test_hegin9zud9q4zo4vgs3njm5zdnvm92"
