"""nn.optim"""
