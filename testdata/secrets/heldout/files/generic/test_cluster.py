    self.kwargs.update({
        'cluster_name': self.create_random_name('sfrp-cli-', 24),
        'vm_password': "Pass123!@#",
        'policy_path': os.path.join(TEST_DIR, 'policy.json')
    })
